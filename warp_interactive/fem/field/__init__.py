from .fields import DiscreteField, TestField, TrialField
from .other import ImplicitField, UniformField
from .restriction import FieldRestriction, make_restriction

__all__ = ["DiscreteField", "FieldRestriction", "ImplicitField", "TestField", "TrialField", "UniformField", "make_restriction"]
