"""The served desk (issue 44): rater mode in a browser, one private link per rater.

`links` issues, resolves and revokes the links (a token shown once, its hash stored), `throttle` slows an
address that sends wrong ones, `sittings` keeps one sitting per rater, and `server` serves the terminal
desk through textual-serve behind them. `workbench --batch desk …` (workbench/cli/desk_cmd.py) drives it.
"""
