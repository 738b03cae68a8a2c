"""The game API, the native games and the GDL-backed game. Imports gdl and reasoning."""
