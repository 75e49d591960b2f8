"""The lecturer's grader, ``python -m booktools grade`` (see ``cli`` for the command and its options)."""
