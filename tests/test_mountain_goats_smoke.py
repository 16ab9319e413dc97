from goatarena.testing import check_game


def test_check_game_mountain_goats():
    assert check_game("mountain-goats", games=5) > 0
