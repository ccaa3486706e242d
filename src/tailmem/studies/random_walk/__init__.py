"""The random-walk study (paper 1 Tables 2-3, 8, Figures 3 and 5): graph worlds, rollouts and their tail audits,
and the tables and figures over them. The controller study replays the same worlds' trajectories.
"""
