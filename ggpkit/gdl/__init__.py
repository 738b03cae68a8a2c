"""The GDL language: terms, the KIF reader and static checks. Imports nothing else of ggpkit."""
