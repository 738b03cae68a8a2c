"""What the native engines share: their batch steppers' outputs and the vocabulary of their GDL
twins.
"""
