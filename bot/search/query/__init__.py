"""Understanding a question: its syntax, request words, spelling, Chinese gloss and names."""
