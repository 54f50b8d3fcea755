#pragma once

namespace engine {

template<typename T>
struct Vec2 {
    T x;
    T y;
};

template<typename T>
Vec2<T> operator+(Vec2<T> a, Vec2<T> b) {
    return Vec2<T>{a.x + b.x, a.y + b.y};
}

}  // namespace engine
