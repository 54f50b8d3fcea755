// scbench's C++ driver: uses the generated module dynamic_cpp_buffer on a data file and prints each row as one
// JSON line, numbers written as text rounded to 6 decimal places (a whole number without decimals).
#include <cmath>
#include <cstdio>
#include <iostream>
#include <string>

#include "dynamic_preprocessor.h"

using namespace dynamic_cpp_buffer;

std::string quoted(const std::string& s) {
    std::string out = "\"";
    for (char c : s) {
        if (c == '"' || c == '\\') {
            out += '\\';
            out += c;
        } else if (static_cast<unsigned char>(c) < 0x20) {
            char escape[8];
            std::snprintf(escape, sizeof escape, "\\u%04x", c);
            out += escape;
        } else {
            out += c;
        }
    }
    return out + "\"";
}

std::string number(double value) {
    double rounded = std::round(value * 1e6) / 1e6;
    if (rounded == std::trunc(rounded)) return std::to_string(static_cast<long long>(rounded));
    char text[64];
    std::snprintf(text, sizeof text, "%.6f", rounded);
    std::string out(text);
    return out.substr(0, out.find_last_not_of('0') + 1);
}

std::string shown(const Value& v) {
    switch (v.type) {
        case ValueType::Bool: return v.bool_value ? "true" : "false";
        case ValueType::Int: return quoted(std::to_string(v.int_value));
        case ValueType::Double: return quoted(number(v.double_value));
        case ValueType::String: return quoted(v.string_value);
        default: return "null";
    }
}

int main(int argc, char* argv[]) {
    std::string data, cache_dir;
    std::size_t buffer = 1024;
    long long stop_after = -1;
    for (int i = 1; i < argc; ++i) {
        std::string arg = argv[i];
        if (arg == "--buffer" && i + 1 < argc) buffer = std::stoull(argv[++i]);
        else if (arg == "--cache_dir" && i + 1 < argc) cache_dir = argv[++i];
        else if (arg == "--stop_after" && i + 1 < argc) stop_after = std::stoll(argv[++i]);
        else data = arg;
    }
    DynamicPreprocessor preprocessor = cache_dir.empty() ? DynamicPreprocessor(buffer)
                                                         : DynamicPreprocessor(buffer, cache_dir);
    preprocessor.open(data);
    Row row;
    long long count = 0;
    while ((stop_after < 0 || count < stop_after) && preprocessor.next(row)) {
        std::string line = "{";
        for (const auto& [key, value] : row) line += (line.size() > 1 ? ", " : "") + quoted(key) + ": " + shown(value);
        std::cout << line << "}" << std::endl;
        ++count;
    }
    return 0;
}
