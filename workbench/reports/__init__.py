"""Written reports of a study (markdown), built from the same analysis and tables as the CLI and screen."""

from .hindsight_report import build_report, write_report

__all__ = ["build_report", "write_report"]
