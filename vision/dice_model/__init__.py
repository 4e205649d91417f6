"""The dice network: its training data and training script (see docs/dice-model.md)."""
