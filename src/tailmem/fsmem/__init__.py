"""Filesystem memory (paper 2): a store of described markdown files, the tool harnesses that touch it,
the roles that build and search it, and the store variants compared on LoCoMo."""
