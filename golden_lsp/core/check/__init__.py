"""The rules: the findings about a locator, a record and the whole set, and the result model they
fill (records, resolved spans, every finding) that every feature and front end reads.
"""
