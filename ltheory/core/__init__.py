"""Finite hypothesis classes and class files."""

from ltheory.core.class_file import class_from_json, class_to_json, load_class, save_class
from ltheory.core.hypothesis_class import HypothesisClass

__all__ = ["HypothesisClass", "class_from_json", "class_to_json", "load_class", "save_class"]
