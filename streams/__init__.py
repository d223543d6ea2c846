"""setveil.streams: the Faust service over Kafka (windows, envelopes, dead letters, metrics)."""
