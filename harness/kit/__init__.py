"""Helpers that only plugins use; no core module imports them (a test checks it).

* :mod:`.weights`: the identity of model weights (hub revisions, file and folder digests);
* :mod:`.precision`: precision names, autocast and their checks;
* :mod:`.ratelimit`: a bounded request pool, requests- and tokens-per-minute budgets, backoff;
* :mod:`.api_keys`: which API key variable a registry may name, and the hosts its key may go to;
* :mod:`.bounds`: one API request's wall-clock deadline, reply-size and answer-text caps;
* :mod:`.exports`: Hugging Face datasets exported into an upstream layout, and read back.
"""
