"""What a finding is: the one diagnostic model the editor and CI both report, and the table of every
finding code (severity, whether it blocks a build, description, documentation anchor).
"""
