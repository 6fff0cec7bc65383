"""Auditing differential-privacy claims of mechanisms and learners (see DESIGN.md)."""
