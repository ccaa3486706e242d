"""The calibration study: which random-walk access protocol, among those paper 1 leaves open, comes
closest to its Tables 7, 2 and 8, and which of its cells no protocol in the searched space reaches."""
