import random
import string

HINT = (
    "Every message starts with the word 'the': the first three letters give you the shift, then shift "
    "every letter back by it."
)

ADJECTIVES = ["quiet", "golden", "broken", "hidden", "frozen", "silver", "hungry", "purple", "ancient", "clever"]
NOUNS = ["river", "garden", "lantern", "castle", "falcon", "harbor", "window", "meadow", "compass", "violin"]


class CipherEnv:
    """A word cipher: decode a Caesar-shifted phrase, optionally paying for revealed letters."""

    max_turns = 8

    def reset(self, seed=None):
        rng = random.Random(seed)
        self.plain = f"the {rng.choice(ADJECTIVES)} {rng.choice(NOUNS)}"
        self.shift = rng.randint(1, 25)
        table = str.maketrans(string.ascii_lowercase,
                              string.ascii_lowercase[self.shift:] + string.ascii_lowercase[:self.shift])
        self.cipher = self.plain.translate(table)
        self.peeks = 0
        self.wrong = 0
        self.turn = 0
        return (
            f"Decode this message, in which every letter was shifted along the alphabet by the same hidden "
            f"amount: '{self.cipher}'. Actions: 'answer <plaintext>' (3 wrong answers end the game) or "
            "'peek <position>' to reveal one plaintext letter (1-based, spaces not counted) at a cost."
        ), {}

    def step(self, action):
        self.turn += 1
        text = str(action).strip().lower()
        verb, _, rest = text.partition(" ")
        letters = self.plain.replace(" ", "")
        if verb == "peek" and rest.strip().isdecimal() and 1 <= int(rest) <= len(letters):
            self.peeks += 1
            obs = f"Letter {int(rest)} is '{letters[int(rest) - 1]}'."
            reward = 0.0
        elif verb == "answer":
            guess = " ".join("".join(ch for ch in rest if ch.isalpha() or ch == " ").split())
            if guess == self.plain:
                reward = max(0.2, 1.0 - 0.2 * self.peeks - 0.1 * self.wrong - 0.02 * (self.turn - 1))
                return f"'{guess}' is correct!", reward, True, False, {"success": True}
            self.wrong += 1
            right = sum(a == b for a, b in zip(guess.split(), self.plain.split()))
            obs = f"Not quite: {right} of 3 words are right."
            reward = 0.0
            if self.wrong >= 3:
                return obs + f" The message was '{self.plain}'.", 0.1 * right, True, False, {"success": False}
        else:
            obs = f"Not understood: 'answer <plaintext>' or 'peek <1-{len(letters)}>'. Cipher: '{self.cipher}'."
            reward = 0.0
        truncated = self.turn >= self.max_turns
        return obs, reward, False, truncated, {"success": False}

    def oracle(self):
        return "answer " + self.plain
