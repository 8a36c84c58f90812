"""Story material of the conversation set, part two: events told in two sessions
(`Pair`: the question needs both turns) and the small talk between events, with the facts
a careful extractor keeps of some of it (distractors close to the events).

`{P}` is the person's first name, `{Q}` the one they talk to; see `story`.
"""

from __future__ import annotations

from benchmarks.eval.story import Pair, _o

PAIRS: tuple[Pair, ...] = (
    Pair(
        "visit",
        _o(
            ("brother", "Jonah", "Denver", "November"),
            ("sister", "Ruth", "Glasgow", "April"),
            ("aunt", "Marisol", "Seville", "June"),
            ("cousin", "Dev", "Singapore", "March"),
            ("uncle", "Piet", "Utrecht", "October"),
            ("grandmother", "Nell", "Cork", "August"),
            keys="rel rname city month",
        ),
        (
            "My {rel} {rname} finally settled in {city}, loves it there.",
            "{P}'s {rel} {rname} lives in {city}.",
        ),
        (
            "Booked flights to go see {rname} for a week in {month}.",
            "{P} booked a week-long trip to see {rname} in {month}.",
        ),
        (
            "Which city is {P} flying to for the family visit?",
            "Where will {P} be staying on the trip to family?",
        ),
    ),
    Pair(
        "gift",
        _o(
            ("partner", "Sasha", "orchids", "a rare moth orchid"),
            ("husband", "Colin", "old maps", "a framed 1890 map of the county"),
            ("wife", "Mira", "jazz", "a Coltrane record on vinyl"),
            ("girlfriend", "Dana", "hiking", "a new pair of trekking poles"),
            ("boyfriend", "Eli", "espresso", "a hand grinder"),
            keys="rel name thing gift",
        ),
        ("{name} is obsessed with {thing}, honestly.", "{P}'s {rel} {name} loves {thing}."),
        ("Got {name} {gift} for the birthday.", "{P} gave {name} {gift} as a birthday present."),
        (
            "What did {P} give the {rel} who loves {thing}?",
            "What present did {P} choose for the {rel}?",
        ),
    ),
    Pair(
        "club",
        _o(
            ("a cycling club", "Spokes", "route planner"),
            ("a choir", "the Harbour Singers", "treasurer"),
            ("a running club", "the Dawn Striders", "pacer"),
            ("a book club", "Chapter and Verse", "host"),
            ("a community garden", "the Allotment Collective", "secretary"),
            keys="kind club role",
        ),
        ("I joined {club}, it's {kind} that meets on Sundays.", "{P} joined {club}, {kind}."),
        ("They voted me {role} at the last meeting, ha.", "{P} was elected {role} of the group."),
        (
            "What role does {P} have in {kind}?",
            "Which job did {P} take on in the group that meets on Sundays?",
        ),
    ),
)

# What a careful extractor keeps of some small talk: distractors close to the events.
SMALL_TALK_FACTS: dict[str, str] = {
    "My neighbour's dog barked all night.": "{P}'s neighbour has a dog that barks at night.",
    "The kids have the flu, house is chaos.": "{P}'s kids had the flu.",
    "Just back from the dentist, face still numb.": "{P} had a dentist appointment.",
    "The heating's broken again, wearing two jumpers.": "The heating in {P}'s home keeps breaking.",
    "Thinking of painting the hallway green.": "{P} is thinking of painting the hallway green.",
    "Saw a fox in the garden this morning.": "{P} saw a fox in the garden.",
    "Tried a new recipe, it was a disaster.": "{P} tried a new recipe that failed.",
    "I need a holiday.": "{P} feels in need of a holiday.",
    "Work has been hectic, deadlines everywhere.": "{P} has a hectic period at work.",
    "That reminds me, I owe you a book.": "{P} owes {Q} a book.",
    "Are you going to the party on Saturday?": "{P} asked {Q} about a party on Saturday.",
    "Went for a long walk by the water today.": "{P} likes long walks by the water.",
    "The new phone update broke my alarm.": "A phone update broke {P}'s alarm.",
    "Did you watch the match last night?": "{P} follows football matches on TV.",
}

SMALL_TALK: tuple[str, ...] = (
    "Morning! How's your week going?",
    "Hey, long time. What's new?",
    "Ugh, Mondays.",
    "It's pouring here again.",
    "Finally some sun today.",
    "Did you watch the match last night?",
    "I'm on my third coffee already.",
    "Can't talk long, meeting in ten.",
    "Haha, classic.",
    "That's amazing, congrats!",
    "Oh no, I'm sorry to hear that.",
    "Same here, honestly.",
    "Let's catch up properly this weekend.",
    "Talk soon!",
    "Good night!",
    "Did you see that new series everyone is talking about?",
    "The traffic this morning was unreal.",
    "I need a holiday.",
    "My neighbour's dog barked all night.",
    "We should get dinner sometime.",
    "Work has been hectic, deadlines everywhere.",
    "I slept eleven hours, feel like a new person.",
    "Tried a new recipe, it was a disaster.",
    "The kids have the flu, house is chaos.",
    "How's your family doing?",
    "Wow, tell me more!",
    "No way!",
    "I'll send you the link later.",
    "The new phone update broke my alarm.",
    "Went for a long walk by the water today.",
    "Ordered takeaway again, no regrets.",
    "My inbox is a nightmare.",
    "That reminds me, I owe you a book.",
    "Happy Friday!",
    "I'm so tired I could sleep at my desk.",
    "The heating's broken again, wearing two jumpers.",
    "Are you going to the party on Saturday?",
    "Just back from the dentist, face still numb.",
    "Saw a fox in the garden this morning.",
    "Thinking of painting the hallway green.",
)
