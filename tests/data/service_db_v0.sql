BEGIN TRANSACTION;
CREATE TABLE games (
	game_id VARCHAR(32) NOT NULL, 
	variant VARCHAR(32) NOT NULL, 
	seats JSON NOT NULL, 
	bot_policy TEXT, 
	auto_deal BOOLEAN NOT NULL, 
	token_hashes JSON NOT NULL, 
	position TEXT NOT NULL, 
	version INTEGER NOT NULL, 
	decisions INTEGER NOT NULL, 
	status VARCHAR(16) NOT NULL, 
	created_at FLOAT NOT NULL, 
	last_used FLOAT NOT NULL, 
	PRIMARY KEY (game_id)
);
INSERT INTO "games" VALUES('0123456789abcdef','classic','["human", "bot", "bot", "bot"]','heuristic',0,'["01bc1e8fbd3eb0317a9b2b0418631eadb4e79259f4412e1376fedafee6e27c78", null, null, null]','{"format": "canasta_env/position", "version": 1, "options": {"variant": "classic", "decks": 2, "jokers": 4, "hand_size": 11, "target_score": 5000, "opening_minimums": [[-1000000000, 15], [0, 50], [1500, 90], [3000, 120]], "max_wilds_per_meld": 3, "canasta_size": 7, "natural_canasta_bonus": 500, "mixed_canasta_bonus": 300, "red_three_bonus": 100, "red_three_all_bonus": 800, "going_out_bonus": 100, "concealed_going_out_bonus": 200, "canastas_to_go_out": 1, "black_three_freezes": false, "red_three_last_card_may_meld": false, "one_card_pile_restriction": true, "ask_partner_required": false, "foot_size": 0, "rounds": 0, "round_minimums": [], "draw_count": 1, "max_meld_size": 0, "wilds_at_most_half_naturals": false, "wild_melds": false, "wild_book_bonus": 1500, "clean_books_to_go_out": 0, "dirty_books_to_go_out": 0, "pile_pair_only": false, "pile_wild_pair": false, "pile_take_limit": 0, "red_three_negative_unmelded": true, "red_three_hand_penalty": 0, "black_three_meld_max": 4, "black_three_melds": true}, "seed": 11, "hand_number": 0, "dealer": 0, "scores": [0, 0], "winner": null, "history": [], "phase": "DRAW", "current": 0, "hands": [["10", "Q", "Q"], ["2", "6", "7", "7", "9", "A", "A"], ["2", "4", "4", "8", "J", "J", "A"], ["Joker", "6", "Q"]], "known": [[], ["6", "9"], [], []], "red_threes": [1, 0, 2, 0], "stock": ["4", "J", "A", "Q", "A", "5", "4", "K", "A", "K", "red 3", "5", "8", "2", "black 3", "5", "Q", "10", "7", "K", "K", "A", "10", "Q", "2", "K", "K", "2", "5", "Joker", "Q", "J", "K", "9", "A", "10", "9", "6", "6", "7", "black 3", "5", "7", "J", "7", "9", "6"], "pile": ["black 3", "black 3", "10", "10", "10", "Q", "K", "10"], "pile_frozen": false, "melds": [{"5": {"naturals": 3, "jokers": 1, "twos": 0}, "6": {"naturals": 3, "jokers": 0, "twos": 0}, "7": {"naturals": 2, "jokers": 0, "twos": 1}, "9": {"naturals": 4, "jokers": 0, "twos": 0}}, {"4": {"naturals": 4, "jokers": 0, "twos": 0}, "8": {"naturals": 6, "jokers": 1, "twos": 1}, "J": {"naturals": 3, "jokers": 0, "twos": 1}}], "opened": [true, true], "minimum": [50, 50], "seat_melded": [true, true, true, true], "turn": {"drew_stock": false, "turn_points": 0, "laid": false, "added_old": false, "new_ranks": [], "pending": [], "asked": 0, "must_out": false, "no_discard": false}, "went_out": null, "concealed": false, "decisions": 44, "sheets": null, "log": [{"event": "deal", "hand": 0, "dealer": 0, "upcards": [6]}, {"event": "red3", "seat": 2}, {"event": "red3", "seat": 2}, {"event": "red3", "seat": 0}, {"seat": 1, "action": 0}, {"seat": 1, "action": 85}, {"seat": 2, "action": 0}, {"seat": 2, "action": 79}, {"seat": 3, "action": 0}, {"seat": 3, "action": 20}, {"seat": 3, "action": 29}, {"seat": 3, "action": 79}, {"seat": 0, "action": 0}, {"seat": 0, "action": 21}, {"seat": 0, "action": 17}, {"seat": 0, "action": 80}, {"seat": 1, "action": 1}, {"seat": 1, "action": 51}, {"seat": 1, "action": 51}, {"seat": 1, "action": 51}, {"seat": 1, "action": 60}, {"seat": 1, "action": 79}, {"seat": 2, "action": 0}, {"seat": 2, "action": 12}, {"seat": 2, "action": 81}, {"seat": 3, "action": 0}, {"seat": 3, "action": 39}, {"seat": 3, "action": 52}, {"seat": 3, "action": 81}, {"seat": 0, "action": 2}, {"seat": 0, "action": 42}, {"seat": 0, "action": 79}, {"seat": 1, "action": 0}, {"seat": 1, "action": 51}, {"seat": 1, "action": 79}, {"seat": 2, "action": 0}, {"seat": 2, "action": 54}, {"seat": 2, "action": 86}, {"seat": 3, "action": 0}, {"seat": 3, "action": 86}, {"seat": 0, "action": 0}, {"seat": 0, "action": 86}, {"seat": 1, "action": 0}, {"seat": 1, "action": 88}, {"seat": 2, "action": 0}, {"seat": 2, "action": 89}, {"seat": 3, "action": 0}, {"seat": 3, "action": 86}], "feet": [[], [], [], []], "in_foot": [false, false, false, false], "books": [[], []], "wild_melds": [{"jokers": 0, "twos": 0}, {"jokers": 0, "twos": 0}]}',0,44,'waiting',1764600000.0,1764600000.0);
CREATE TABLE moves (
	id INTEGER NOT NULL, 
	game_id VARCHAR(32) NOT NULL, 
	seq INTEGER NOT NULL, 
	hand_number INTEGER NOT NULL, 
	seat INTEGER NOT NULL, 
	action INTEGER NOT NULL, 
	description TEXT NOT NULL, 
	at FLOAT NOT NULL, 
	PRIMARY KEY (id), 
	CONSTRAINT moves_game_seq UNIQUE (game_id, seq)
);
INSERT INTO "moves" VALUES(1,'0123456789abcdef',1,0,1,0,'draw from stock',1.79615709490489482884e+09);
INSERT INTO "moves" VALUES(2,'0123456789abcdef',2,0,1,85,'discard 9',1.79615709490489482884e+09);
INSERT INTO "moves" VALUES(3,'0123456789abcdef',3,0,2,0,'draw from stock',1.79615709490489482884e+09);
INSERT INTO "moves" VALUES(4,'0123456789abcdef',4,0,2,79,'discard black 3',1.79615709490489482884e+09);
INSERT INTO "moves" VALUES(5,'0123456789abcdef',5,0,3,0,'draw from stock',1.79615709490489482884e+09);
INSERT INTO "moves" VALUES(6,'0123456789abcdef',6,0,3,20,'meld 8: 2 naturals + 2',1.79615709490489482884e+09);
INSERT INTO "moves" VALUES(7,'0123456789abcdef',7,0,3,29,'meld J: 2 naturals + 2',1.79615709490489482884e+09);
INSERT INTO "moves" VALUES(8,'0123456789abcdef',8,0,3,79,'discard black 3',1.79615709490489482884e+09);
INSERT INTO "moves" VALUES(9,'0123456789abcdef',9,0,0,0,'draw from stock',1.79615709490489482884e+09);
INSERT INTO "moves" VALUES(10,'0123456789abcdef',10,0,0,21,'meld 9: 3 naturals',1.79615709490489482884e+09);
INSERT INTO "moves" VALUES(11,'0123456789abcdef',11,0,0,17,'meld 7: 2 naturals + 2',1.79615709490489482884e+09);
INSERT INTO "moves" VALUES(12,'0123456789abcdef',12,0,0,80,'discard 4',1.79615709490489482884e+09);
INSERT INTO "moves" VALUES(13,'0123456789abcdef',13,0,1,1,'take pile with a natural pair',1.79615709490489482884e+09);
INSERT INTO "moves" VALUES(14,'0123456789abcdef',14,0,1,51,'add natural to 8 meld',1.79615709490489482884e+09);
INSERT INTO "moves" VALUES(15,'0123456789abcdef',15,0,1,51,'add natural to 8 meld',1.79615709490489482884e+09);
INSERT INTO "moves" VALUES(16,'0123456789abcdef',16,0,1,51,'add natural to 8 meld',1.79615709490489482884e+09);
INSERT INTO "moves" VALUES(17,'0123456789abcdef',17,0,1,60,'add natural to J meld',1.79615709490489482884e+09);
INSERT INTO "moves" VALUES(18,'0123456789abcdef',18,0,1,79,'discard black 3',1.79615709490489482884e+09);
INSERT INTO "moves" VALUES(19,'0123456789abcdef',19,0,2,0,'draw from stock',1.79615709490489482884e+09);
INSERT INTO "moves" VALUES(20,'0123456789abcdef',20,0,2,12,'meld 6: 3 naturals',1.79615709490489482884e+09);
INSERT INTO "moves" VALUES(21,'0123456789abcdef',21,0,2,81,'discard 5',1.79615709490489482884e+09);
INSERT INTO "moves" VALUES(22,'0123456789abcdef',22,0,3,0,'draw from stock',1.79615709490489482884e+09);
INSERT INTO "moves" VALUES(23,'0123456789abcdef',23,0,3,39,'add natural to 4 meld',1.79615709490489482884e+09);
INSERT INTO "moves" VALUES(24,'0123456789abcdef',24,0,3,52,'add Joker to 8 meld',1.79615709490489482884e+09);
INSERT INTO "moves" VALUES(25,'0123456789abcdef',25,0,3,81,'discard 5',1.79615709490489482884e+09);
INSERT INTO "moves" VALUES(26,'0123456789abcdef',26,0,0,2,'take pile with a natural + Joker',1.79615709490489482884e+09);
INSERT INTO "moves" VALUES(27,'0123456789abcdef',27,0,0,42,'add natural to 5 meld',1.79615709490489482884e+09);
INSERT INTO "moves" VALUES(28,'0123456789abcdef',28,0,0,79,'discard black 3',1.79615709490489482884e+09);
INSERT INTO "moves" VALUES(29,'0123456789abcdef',29,0,1,0,'draw from stock',1.79615709490489482884e+09);
INSERT INTO "moves" VALUES(30,'0123456789abcdef',30,0,1,51,'add natural to 8 meld',1.79615709490489482884e+09);
INSERT INTO "moves" VALUES(31,'0123456789abcdef',31,0,1,79,'discard black 3',1.79615709490489482884e+09);
INSERT INTO "moves" VALUES(32,'0123456789abcdef',32,0,2,0,'draw from stock',1.79615709490489482884e+09);
INSERT INTO "moves" VALUES(33,'0123456789abcdef',33,0,2,54,'add natural to 9 meld',1.79615709490489482884e+09);
INSERT INTO "moves" VALUES(34,'0123456789abcdef',34,0,2,86,'discard 10',1.79615709490489482884e+09);
INSERT INTO "moves" VALUES(35,'0123456789abcdef',35,0,3,0,'draw from stock',1.79615709490489482884e+09);
INSERT INTO "moves" VALUES(36,'0123456789abcdef',36,0,3,86,'discard 10',1.79615709490489482884e+09);
INSERT INTO "moves" VALUES(37,'0123456789abcdef',37,0,0,0,'draw from stock',1.79615709490489482884e+09);
INSERT INTO "moves" VALUES(38,'0123456789abcdef',38,0,0,86,'discard 10',1.79615709490489482884e+09);
INSERT INTO "moves" VALUES(39,'0123456789abcdef',39,0,1,0,'draw from stock',1.79615709490489482884e+09);
INSERT INTO "moves" VALUES(40,'0123456789abcdef',40,0,1,88,'discard Q',1.79615709490489482884e+09);
INSERT INTO "moves" VALUES(41,'0123456789abcdef',41,0,2,0,'draw from stock',1.79615709490489482884e+09);
INSERT INTO "moves" VALUES(42,'0123456789abcdef',42,0,2,89,'discard K',1.79615709490489482884e+09);
INSERT INTO "moves" VALUES(43,'0123456789abcdef',43,0,3,0,'draw from stock',1.79615709490489482884e+09);
INSERT INTO "moves" VALUES(44,'0123456789abcdef',44,0,3,86,'discard 10',1.79615709490489482884e+09);
CREATE INDEX ix_games_last_used ON games (last_used);
COMMIT;
