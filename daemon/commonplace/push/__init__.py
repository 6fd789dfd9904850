"""Web push: VAPID keys, the phones' subscriptions, and sending (RFC 8030/8291/8292).

May import: basics, config, runtime, vault.
"""

from commonplace.push.keys import PushKeyError, VapidKeys, load_or_create_keys
from commonplace.push.send import (
    MAX_PAYLOAD_BYTES,
    Delivery,
    PushMessage,
    encode_payload,
    send_to_all,
)
from commonplace.push.store import BadSubscription, Subscription, SubscriptionStore, push_folder

__all__ = [
    "MAX_PAYLOAD_BYTES",
    "BadSubscription",
    "Delivery",
    "PushKeyError",
    "PushMessage",
    "Subscription",
    "SubscriptionStore",
    "VapidKeys",
    "encode_payload",
    "load_or_create_keys",
    "push_folder",
    "send_to_all",
]
