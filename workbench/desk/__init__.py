"""The served desk (issue 44): rater mode in a browser, one private link per rater.

`links` issues, resolves and revokes the links (a token shown once, its hash stored), `throttle` slows an
address that sends wrong ones, and `sittings` keeps one sitting per rater. The server behind them, which
serves the terminal desk through textual-serve, is screens/desk_server.py (Textual's family stays in the
screens); `workbench --batch desk …` (workbench/cli/desk_cmd.py) drives it, handed the server by the
`workbench` command as the TUI is.
"""
