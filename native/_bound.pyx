# distutils: language = c++
"""The fairness lower bound, exposed alone for tests (placeholder: being written)."""
