"""`python -m bot fetch`: a conference's paper list from where it is published (the conference
site's programme feed with its abstracts, or OpenReview's accepted notes), saved atomically in
the folder the bot loads.

`sources` names what to fetch and where it goes; `http` is the polite client with its bounded
retries and the refusals every source shares; `feed` and `openreview` fetch; `files` writes.
"""
