"""Faultline screens: the live debate, the crux-card browser, the belief-graph panel and the metrics
panel. Each works standalone given (db, study_id) and at 80x24."""
