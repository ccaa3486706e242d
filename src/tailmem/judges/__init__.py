"""The same answers under several judges: the judges, their agreement, and which claims depend on them."""
