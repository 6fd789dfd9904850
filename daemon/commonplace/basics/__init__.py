"""Small shared basics that know nothing of notes or of the daemon: dates and times in words
(dates.py), days named in words turned into dates (daywords.py), the one doubling backoff,
which network an address belongs to (net.py), whether a JSON value can be written as UTF-8,
and where the files that ship with the program are (resources.py).

May import: nothing of commonplace.
"""
