"""The controller study (paper 1 Tables 4-6, Figures 4, 6 and 7): the design check, one replay per memory arm and
the report with its claims.
"""
