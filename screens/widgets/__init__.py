"""Reusable widgets shared by the screens."""
