"""Labels: the questions file's records and locators, a quote resolved to its span (SPEC §4), why a
quote is not found, the one quote picker every written quote comes from, the facts of a quote the
rules read instead of texts, the hit rules (SPEC §5) and record ids.
"""
