"""Classic poker (docs/rules/classic-poker.md): draw and stud, high/low/hi-lo, jokers and wild cards, 36-card poker."""
