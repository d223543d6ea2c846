"""Security settings reach every Kafka client: aiokafka's arguments and Faust's credentials."""

from __future__ import annotations

import ssl

import pytest
import faust

from setveil.streams.kafka import client_kwargs, faust_credentials
from setveil.streams.settings import load_settings

certifi = pytest.importorskip("certifi")  # a CA bundle to build TLS contexts from


def test_plaintext_by_default():
    settings = load_settings(env={"SETVEIL_KAFKA_BOOTSTRAP": "a:9092,b:9092"})
    assert client_kwargs(settings) == {"bootstrap_servers": "a:9092,b:9092", "security_protocol": "PLAINTEXT"}
    assert faust_credentials(settings) is None


def test_sasl_over_tls_is_passed_through():
    settings = load_settings(env={
        "SETVEIL_KAFKA_SECURITY_PROTOCOL": "SASL_SSL",
        "SETVEIL_KAFKA_SSL_CAFILE": certifi.where(),
        "SETVEIL_KAFKA_SASL_MECHANISM": "SCRAM-SHA-512",
        "SETVEIL_KAFKA_SASL_USERNAME": "svc",
        "SETVEIL_KAFKA_SASL_PASSWORD": "pw",
    })
    kwargs = client_kwargs(settings)
    assert kwargs["security_protocol"] == "SASL_SSL"
    assert (kwargs["sasl_mechanism"], kwargs["sasl_plain_username"], kwargs["sasl_plain_password"]) == (
        "SCRAM-SHA-512", "svc", "pw")
    assert isinstance(kwargs["ssl_context"], ssl.SSLContext)
    credentials = faust_credentials(settings)
    assert isinstance(credentials, faust.SASLCredentials)
    assert credentials.protocol.value == "SASL_SSL" and credentials.mechanism.value == "SCRAM-SHA-512"


def test_tls_alone():
    settings = load_settings(env={"SETVEIL_KAFKA_SECURITY_PROTOCOL": "SSL", "SETVEIL_KAFKA_SSL_CAFILE": certifi.where()})
    assert isinstance(client_kwargs(settings)["ssl_context"], ssl.SSLContext)
    assert isinstance(faust_credentials(settings), faust.SSLCredentials)
