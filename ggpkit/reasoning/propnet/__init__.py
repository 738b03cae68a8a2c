"""The propnet: a ground program built into a network of flat arrays (build time) and run by
numba kernels (run time), one state or 64 lanes at a time.
"""
