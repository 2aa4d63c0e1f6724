// The fairness lower bound (DESIGN.md §3). Placeholder: being written.
#pragma once
