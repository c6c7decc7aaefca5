"""Colour classes of the dashboard's palette over its background (map.js COLORS), for reading
screenshots."""


def is_region_blue(p):
    r, g, b = p
    return b - r > 25 and b > g and r < 225


def is_occupied_green(p):
    r, g, b = p
    return g - r > 20 and g > b


def is_device_red(p):
    r, g, b = p
    return r > 170 and r - g > 100 and r - b > 80


def is_background(p):
    r, g, b = p
    return min(p) > 225 and max(p) - min(p) < 15


