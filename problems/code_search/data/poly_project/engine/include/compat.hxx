#pragma once
// TODO: drop once every compiler supports C++17
#define ENGINE_COMPAT 1
