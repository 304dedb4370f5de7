def bracket_to_dict(b):
    return {}


def render_bracket(b):
    return ""
