from .fields import DiscreteField, TestField, TrialField

__all__ = ["DiscreteField", "TestField", "TrialField"]
