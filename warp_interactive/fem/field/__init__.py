from .fields import DiscreteField, TestField, TrialField
from .other import ImplicitField, UniformField

__all__ = ["DiscreteField", "ImplicitField", "TestField", "TrialField", "UniformField"]
