#include "fairlist/fairness_bound.hpp"
