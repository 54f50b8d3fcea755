#pragma once

#include <string>

#include "vec.hh"

namespace engine {

class Engine {
public:
    int run(int steps);
    void step(int index);
    std::string name() const;

private:
    Vec2<double> position_{0.0, 0.0};
};

}  // namespace engine
