"""Webhooks: a tenant's change feed pushed to a URL it subscribed, signed, at least once.

* ``model``: a subscription and its delivery state (what survives a restart);
* ``signing``: the HMAC-SHA256 signature of a delivery and its verification (the SDK's
  ``verify_webhook`` is this one);
* ``destinations``: which URLs may be subscribed and which addresses may be reached
  (no server-side request forgery by default);
* ``retries``: when to try again and when to pause;
* ``payload``: the body of a delivery, built from change-feed entries (never content).

Design: ``docs/design/WEBHOOKS.md``.
"""
