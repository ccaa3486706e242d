"""How the model played each role in a model slice: probe figures per role and every claims row beside the roles it
rests on.
"""
