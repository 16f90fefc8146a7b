"""How this platform team names things: one prefix per team, so environments never collide."""


def team_name(team: str, what: str) -> str:
    return f"{team}-{what}"
