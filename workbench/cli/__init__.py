"""The `workbench` command: the TUI by default, `--batch COMMAND` for headless work."""
