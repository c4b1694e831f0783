from .fields import DiscreteField, TestField, TrialField
from .nonconforming import NonconformingField
from .other import ImplicitField, UniformField
from .restriction import FieldRestriction, make_restriction

__all__ = ["DiscreteField", "FieldRestriction", "ImplicitField", "NonconformingField", "TestField", "TrialField",
           "UniformField", "make_restriction"]
