// The declared keys of a system config, by JSON pointer: which parameter table (the same Params
// the models bind) governs each object of a system document. `--set` uses it to add a key that the
// models declare but the file leaves out (taking its default otherwise). Contract: a pointer is
// declared when its parent object is in the table and that object's Params declares the key.
#pragma once

#include <string>

namespace t3sim::system {

bool system_declares(const std::string& pointer);

}  // namespace t3sim::system
