"""Board inference: where a game keeps a board in its facts and how its pieces look, for the
web app, notebooks and the research bridges.
"""
