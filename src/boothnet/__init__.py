"""boothnet: intent -> configs -> verify -> deploy -> validate -> report for show networks."""

__version__ = "0.1.0"
