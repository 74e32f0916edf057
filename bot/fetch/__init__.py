"""`python -m bot fetch`: a conference's paper list (the site's programme feed with its
abstracts, or OpenReview's accepted notes), saved atomically in the folder the bot loads."""
