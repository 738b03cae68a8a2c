"""The long jobs behind the CLI: benchmarks (bench, perftest), the corpus run, warm-up, and the
player-skill suite.
"""
