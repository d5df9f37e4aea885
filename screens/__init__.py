"""The Textual app: one module per screen. Only this package imports Textual."""
