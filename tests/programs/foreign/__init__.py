"""Small programs written as an adversary would (issue 25): ordinary Python and torch, each
``main()`` calling its functions several times with the world changed between the calls
(globals, attributes, list contents, dtypes, shapes, flags, seeds, warning filters, ...).

``tests/programs/test_foreign_programs.py`` runs them plainly and with this package selected
(``python -m autograph run --packages foreign``) and compares what each prints.
"""
