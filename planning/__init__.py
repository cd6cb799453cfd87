"""Decisions from the books: how many accelerators to commit to (commitment_planner.py)."""
