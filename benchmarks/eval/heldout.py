"""Held-out material of the conversation set: new people, new events, other phrasing habits.

Written after the ranking was tuned on `story.py` and `chat.py`, and before anything was
changed for it: no ranking value is chosen on it (`search_quality.py --set heldout` scores
it). Three conversations (`talk-01`...) between people none of the tuning set's share a
name with (two of whom are named with common words, Rose and Mark), about twelve kinds of
event the tuning set has none of (a driving test, a burglary, jury duty, beekeeping...),
three two-session events of new kinds, new small talk and reactions. The questions are
asked in other habits: "Around what date did ...", "how long ago did ...", "Anything going
on with ... in <month> <year>?", and every third question is typed in lower case without
its question mark ("what did rose get up to in june 2025"), as people type to an agent.
The generator is `conversations.generate(HELDOUT)`.
"""

from __future__ import annotations

from benchmarks.eval.conversations import Material
from benchmarks.eval.story import Pair, Topic, _o

PEOPLE: tuple[tuple[str, ...], ...] = (
    ("Rose Halloran", "Tariq Aziz"),
    ("Mark Oyelaran", "Signe Holm", "Pablo Ibarra"),
    ("Dalia Mansour", "Fergus Quinn", "Ilse Brandt"),
)

TOPICS: tuple[Topic, ...] = (
    Topic(
        "licence",
        _o(
            ("fourth", "the Hendon test centre"),
            ("second", "a test centre out by the ring road"),
            ("first", "the Morningside centre"),
            ("third", "a tiny rural test centre"),
            ("fifth", "the centre next to the ferry terminal"),
            keys="attempt centre",
        ),
        (
            "PASSED on my {attempt} try at {centre}, I'm allowed on the road on my own now!",
            "The examiner shook my hand at {centre}. My {attempt} attempt, but who's counting.",
        ),
        "{P} passed the driving test on the {attempt} attempt, at {centre}.",
        (
            "How many goes did it take {P} to get a licence?",
            "Where was {P} examined behind the wheel?",
        ),
        ("get the driving licence", "pass the exam on the road"),
        ("Can {P} drive us to the station?", "Is {P} allowed to rent a car now?"),
        (("Parallel parked on the first go today, nobody saw it.", "{P} is practising parking."),),
        ("How many times did {P} fail the driving test?",),
    ),
    Topic(
        "burglary",
        _o(
            ("bike and laptop", "a back window left ajar"),
            ("grandfather's coin collection", "the garage door"),
            ("two TVs", "a forced patio door"),
            ("camera gear", "the cat flap, somehow"),
            ("car keys and the car", "a letterbox fishing trick"),
            keys="stolen way",
        ),
        (
            "Someone broke in while we were at work. They took my {stolen}, got in through {way}.",
            "Police just left. Burglars, {way}, and my {stolen} are gone.",
        ),
        "{P}'s home was burgled; the thieves took {P}'s {stolen}, entering through {way}.",
        ("What went missing from {P}'s place?", "How did the intruders get into {P}'s house?"),
        ("have the break-in", "call the police about the thieves"),
        ("Should {P} look into a home alarm?", "Is {P} dealing with an insurance claim?"),
        (
            (
                "Locksmith came, new locks on every door.",
                "{P} had the locks changed after the break-in.",
            ),
        ),
        ("What did the pickpocket take from {P}?",),
    ),
    Topic(
        "award",
        _o(
            ("the regional short story prize", "a story about a lighthouse keeper"),
            ("best in show at the county fair", "a giant marrow"),
            ("the employee of the year award", "rescuing the payroll migration"),
            ("a photography competition", "a shot of starlings over the pier"),
            ("the amateur baking final", "a rhubarb and ginger tart"),
            keys="prize work",
        ),
        (
            "I still can't believe it, I won {prize} for {work}!",
            "Trophy on the shelf: {prize}. Judges loved {work}.",
        ),
        "{P} won {prize} with {work}.",
        ("What did {P} get recognised for?", "Which contest did {P} come first in?"),
        ("win the competition", "collect the trophy"),
        ("Should we throw {P} a little celebration?", "Does {P} have a winning entry to show off?"),
        (("Local paper wants an interview, help.", "{P} was asked for a newspaper interview."),),
        ("What did {P} win at the chess tournament?",),
    ),
    Topic(
        "jury",
        _o(
            ("a fraud trial", "three weeks"),
            ("an arson case", "nine days"),
            ("a robbery trial", "two weeks"),
            ("a dangerous driving case", "a week"),
            ("a smuggling trial", "a month"),
            keys="case length",
        ),
        (
            "Summoned for jury service: {case}. They said it could last {length}.",
            "Can't say much, I'm on a jury for {case}, expected to take {length}.",
        ),
        "{P} served as a juror in {case} lasting {length}.",
        ("What kind of trial did {P} sit on?", "What civic duty is {P} doing in court?"),
        ("get called to serve in court", "begin the court duty"),
        ("Is {P} away from the office for a while?", "Can {P} talk about a legal case right now?"),
        (("Deliberations today. Long day.", "{P}'s jury went into deliberations."),),
        ("Which trial did {P} testify in as a witness?",),
    ),
    Topic(
        "bees",
        _o(
            ("two hives", "18 kilos of honey"),
            ("one hive", "a first jar of heather honey"),
            ("three hives", "a swarm caught in a plum tree"),
            ("a top-bar hive", "a queen that survived the winter"),
            ("four hives", "honey sold at the school fete"),
            keys="hives news",
        ),
        (
            "The bees are thriving! We have {hives} now, and {news}.",
            "Suited up this morning to check {hives}. Big news: {news}.",
        ),
        "{P} keeps bees in {hives}; news: {news}.",
        ("What insects does {P} look after?", "What's the latest from {P}'s apiary?"),
        ("set up the hives", "start beekeeping"),
        ("Would {P} have honey to give away?", "Is {P} likely to get stung this summer?"),
        (("Got stung on the eyelid, looking great.", "{P} was stung on the eyelid by a bee."),),
        ("How many chickens does {P} keep?",),
    ),
    Topic(
        "podcast",
        _o(
            ("old horror films", "cousin Ollie"),
            ("urban legends of the city", "colleague Bryony from the library"),
            ("board games", "flatmate Sol"),
            ("the history of bridges", "engineer friend Agnieszka"),
            ("amateur astronomy", "friend Tobias from the observatory club"),
            keys="subject cohost",
        ),
        (
            "Episode one is up! Our podcast about {subject}, I host it with my {cohost}.",
            "Recorded our first episode in a cupboard: {subject}, me and my {cohost}.",
        ),
        "{P} launched a podcast about {subject}, co-hosted with their {cohost}.",
        ("What's {P}'s show about?", "Who does {P} record episodes with?"),
        ("launch the show", "put the first episode online"),
        ("Does {P} own a decent microphone?", "Would {P} want guests to interview?"),
        (("We hit 500 downloads!", "{P}'s podcast reached 500 downloads."),),
        ("Which radio station hired {P}?",),
    ),
    Topic(
        "citizenship",
        _o(
            ("Canadian", "a ceremony at the town hall"),
            ("Irish", "a ceremony in Dublin Castle"),
            ("German", "an appointment at the Bürgeramt"),
            ("Australian", "a ceremony on the beach"),
            ("Portuguese", "a consulate appointment"),
            keys="nationality where",
        ),
        (
            "Officially {nationality} as of today! {where}, I cried a bit.",
            "Took the oath: {where}. I'm {nationality} now, passport next.",
        ),
        "{P} took {nationality} citizenship at {where}.",
        ("What new passport can {P} apply for?", "Which country naturalised {P}?"),
        ("take the citizenship oath", "get naturalised"),
        ("Can {P} vote in the next national election?", "Does {P} hold two nationalities?"),
        (("Passport photo taken, I look like a criminal.", "{P} had a passport photo taken."),),
        ("Which visa was {P} refused?",),
    ),
    Topic(
        "eyes",
        _o(
            ("laser eye surgery", "the Clearview clinic"),
            ("cataract surgery", "the eye hospital"),
            ("varifocal glasses", "an optician on the high street"),
            ("contact lenses", "a clinic near work"),
            ("a squint correction", "a private clinic"),
            keys="treatment clinic",
        ),
        (
            "Got {treatment} at {clinic}. Everything is so sharp, I can read road signs!",
            "It's done: {treatment} at {clinic}. No more squinting.",
        ),
        "{P} got {treatment} at {clinic}.",
        ("What did {P} do about poor eyesight?", "Where did {P} get the vision fixed?"),
        ("sort out the blurry vision", "have the eye appointment"),
        ("Can {P} see well at night now?", "Did {P} have trouble seeing?"),
        (("Eye drops every four hours, setting alarms.", "{P} uses eye drops every four hours."),),
        ("Which hearing aid did {P} choose?",),
    ),
    Topic(
        "exhibition",
        _o(
            ("watercolours of the canal", "the Kiln Gallery"),
            ("black-and-white street photos", "a café on Mill Lane"),
            ("linocut prints", "the library foyer"),
            ("portraits in charcoal", "a pop-up space in the old bank"),
            ("driftwood sculptures", "the harbour arts centre"),
            keys="works venue",
        ),
        (
            "Opening night! My {works} are hanging at {venue} until the end of the month.",
            "Sold two pieces already. {venue} is showing my {works}.",
        ),
        "{P} exhibited {works} at {venue}.",
        ("Where can people see {P}'s art?", "What artwork did {P} put on display?"),
        ("open the show of the artwork", "hang the pieces for the opening"),
        ("Would {P} accept a commission?", "Is {P} an artist?"),
        (("Someone wants to buy the big one!", "A buyer is interested in {P}'s biggest piece."),),
        ("Which museum bought {P}'s sculpture?",),
    ),
    Topic(
        "reunion",
        _o(
            ("twenty-year school reunion", "old lab partner Imogen"),
            ("college reunion", "first-year roommate Declan"),
            ("family reunion in the Azores", "long-lost second cousin Nuno"),
            ("ten-year reunion of the rowing team", "old rowing coach Brenda"),
            ("reunion of the exchange programme", "host sister Léa"),
            keys="event who",
        ),
        (
            "Went to the {event}. Best part was seeing my {who} again after all these years.",
            "That {event} was surreal. Spent the whole night talking to my {who}.",
        ),
        "{P} went to a {event} and reconnected with their {who}.",
        ("Who did {P} catch up with at the gathering?", "What get-together did {P} attend?"),
        ("see the old classmates again", "go to the get-together"),
        ("Is {P} back in touch with people from long ago?", "Is {P} feeling nostalgic?"),
        (("Old photos are flooding the group chat.", "{P}'s reunion group chat shares photos."),),
        ("Who did {P} fall out with at the wedding?",),
    ),
    Topic(
        "flood",
        _o(
            ("basement", "a burst pipe"),
            ("kitchen", "the washing machine hose"),
            ("ground floor", "the river overflowing"),
            ("bathroom and hallway", "a blocked drain upstairs"),
            ("garage", "a storm drain backing up"),
            keys="room cause",
        ),
        (
            "Woke up to water everywhere in the {room}, it was {cause}. Everything's soaked.",
            "Flooded! The {room} is under water thanks to {cause}.",
        ),
        "Water flooded {P}'s {room} because of {cause}.",
        ("What caused the water damage at {P}'s?", "Which part of {P}'s home got soaked?"),
        ("deal with the water damage", "find the house under water"),
        ("Does {P} need a dehumidifier?", "Is {P} dealing with repairs at home?"),
        (("Fans running day and night to dry the walls.", "{P} is drying the walls with fans."),),
        ("What did the fire destroy at {P}'s?",),
    ),
    Topic(
        "quit",
        _o(
            ("smoking", "nicotine gum"),
            ("sugar", "a 30-day challenge"),
            ("social media", "deleting the apps"),
            ("alcohol", "a sober-curious group"),
            ("coffee", "switching to green tea"),
            keys="habit method",
        ),
        (
            "Three weeks without {habit}! {method} is doing the heavy lifting.",
            "I've given up {habit}. Using {method}, it's hard but working.",
        ),
        "{P} quit {habit} with the help of {method}.",
        ("What vice did {P} give up?", "How is {P} managing to kick the habit?"),
        ("kick the habit", "give up for good"),
        ("Should we avoid offering {P} certain things?", "Is {P} trying to live healthier?"),
        (("Cravings were awful today.", "{P} struggles with cravings."),),
        ("When did {P} stop eating meat?",),
    ),
)

PAIRS: tuple[Pair, ...] = (
    Pair(
        "carpool",
        _o(
            ("Gus", "Harrow"),
            ("Ottilie", "the science park"),
            ("Ranjit", "Kingsbridge"),
            ("Bea", "the airport"),
            ("Yannick", "Northgate"),
            keys="neighbour town",
        ),
        (
            "Our neighbour {neighbour} drives to {town} every weekday at seven.",
            "{P}'s neighbour {neighbour} drives to {town} on weekdays.",
        ),
        (
            "Starting Monday I'm riding with {neighbour}, that'll save me a fortune.",
            "{P} carpools with {neighbour}.",
        ),
        ("Where does {P}'s morning carpool go?", "Which town does {P} commute to by car share?"),
    ),
    Pair(
        "recipe",
        _o(
            ("lamb stew", "a spoon of anchovy paste"),
            ("apple cake", "cardamom"),
            ("meatballs", "grated nutmeg"),
            ("lentil soup", "smoked paprika"),
            ("pierogi", "fried onions in the dough"),
            keys="dish secret",
        ),
        (
            "Grandma finally told me her {dish} secret: {secret}.",
            "{P}'s grandmother's {dish} recipe uses {secret}.",
        ),
        (
            "Brought grandma's {dish} to the potluck, people fought over it.",
            "{P} brought grandma's {dish} to a potluck.",
        ),
        (
            "What's the hidden ingredient in what {P} cooked for the potluck?",
            "What makes the dish {P} shared at the potluck special?",
        ),
    ),
    Pair(
        "toast",
        _o(
            ("Hattie", "a vineyard in Tuscany"),
            ("Colm", "a lighthouse on Anglesey"),
            ("Priyanka", "her parents' farm"),
            ("Lorenzo", "a castle near Edinburgh"),
            ("Mei", "a rooftop in Lisbon"),
            keys="friend venue",
        ),
        (
            "My oldest friend {friend} is getting married at {venue}!",
            "{P}'s oldest friend {friend} is getting married at {venue}.",
        ),
        (
            "I've been asked to give the toast at {friend}'s wedding. Terrified.",
            "{P} will give a toast at {friend}'s wedding.",
        ),
        ("Where is the wedding {P} is making a speech at?", "Where will {P} give a toast?"),
    ),
)

SMALL_TALK_FACTS: dict[str, str] = {
    "My landlord finally fixed the boiler.": "{P}'s landlord fixed the boiler.",
    "Started a jigsaw, 2000 pieces, what was I thinking.": "{P} does big jigsaw puzzles.",
    "My sister is visiting next weekend.": "{P}'s sister visits at weekends.",
    "The bus drivers are on strike again.": "{P} is affected by bus strikes.",
    "Burnt the toast, set off the smoke alarm.": "{P} set off the smoke alarm burning toast.",
    "Bought way too many houseplants.": "{P} collects houseplants.",
    "My knee's been clicking on the stairs.": "{P} has a clicking knee.",
    "Binge-watched a whole season of a baking show.": "{P} likes baking shows.",
    "I finally cleaned out the fridge.": "{P} cleaned out the fridge.",
    "Remind me to send you that article.": "{P} promised {Q} an article.",
    "Our internet was down all evening.": "{P}'s internet went down for an evening.",
    "Picked blackberries along the canal.": "{P} picks blackberries along the canal.",
}

SMALL_TALK: tuple[str, ...] = (
    "hiya",
    "Yo, you alive?",
    "Tuesday already??",
    "Foggy as anything out here.",
    "Sunburnt on my lunch break, somehow.",
    "Ha, brilliant.",
    "omg",
    "Gotta run, dentist... kidding, it's a meeting.",
    "Night night.",
    "Catch you later!",
    "You free for a call Thursday?",
    "Coffee machine at work died, morale is low.",
    "My landlord finally fixed the boiler.",
    "Started a jigsaw, 2000 pieces, what was I thinking.",
    "My sister is visiting next weekend.",
    "The bus drivers are on strike again.",
    "Burnt the toast, set off the smoke alarm.",
    "Bought way too many houseplants.",
    "My knee's been clicking on the stairs.",
    "Binge-watched a whole season of a baking show.",
    "I finally cleaned out the fridge.",
    "Remind me to send you that article.",
    "Our internet was down all evening.",
    "Picked blackberries along the canal.",
    "How did your thing go?",
    "Lol same",
    "Weekend plans?",
    "Honestly just want to hibernate.",
    "Did you get my voice note?",
    "Rain rain rain.",
)

REACTIONS = ("Whoa!", "Get in!!", "Ugh, that's rough.", "Seriously? Amazing.", "Oof.")


def typed(n: int, query: str) -> str:
    """Every third question typed in lower case, without its question mark."""
    return query.lower().rstrip("?") if n % 3 == 2 else query


HELDOUT = Material(
    PEOPLE,
    TOPICS,
    PAIRS,
    SMALL_TALK,
    SMALL_TALK_FACTS,
    reactions=REACTIONS,
    agent="talk",
    seed=1808,
    when=("Around what date did {P} {when}?", "how long ago did {P} {when}?"),
    months=(
        "Anything going on with {P} in {month} {year}?",
        "What happened to {P} during {month}?",
        "what did {P} get up to in {month} {year}",
    ),
    typed=typed,
)
