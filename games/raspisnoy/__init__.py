"""Raspisnoy ("Расписной" poker): trick taking with bids and a joker, played as whole matches
(docs/rules/raspisnoy.md, rule ids ``R-x.y``)."""
