#include <cstdio>
#include <string>
#include <vector>

#include "engine.hpp"
#include "vec.hh"

namespace engine {

// TODO: replace printf with a logging facade
int Engine::run(int steps) {
    for (int i = 0; i < steps; ++i) {
        step(i);
        printf("step %d\n", i);
    }
    return steps;
}

void Engine::step(int index) {
    Vec2<double> velocity{1.0, 0.5};
    position_ = position_ + velocity;
    if (index % 10 == 0) {
        printf("position %f %f\n", position_.x, position_.y);
    }
}

std::string Engine::name() const {
    return "engine µ-core";
}

}  // namespace engine
